package com.example;
public class Shape implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  public String name = "shape";
  public int sides;
}
